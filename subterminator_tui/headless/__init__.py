"""The headless front end (``--no-tui``): turn lines on stdout, prompts read from stdin."""
