"""Find what you pay for: recurring charges in the statements a person exported."""
