"""Find what you pay for: recurring charges in the statements a person exported.

Headless: no UI, no model SDK, no network client (an import contract checks it). The
CLI's ``find`` and the app's subscriptions home sit on top.

- ``transactions``   a statement once read: dated, signed rows; StatementError
- ``reading``        one entry point: the file's content says its format
- ``csv_reader``     CSV exports: delimiter, header row, dates, amounts, signs
- ``columns``        which CSV column is what (``csv_headers.toml``), or a question
- ``ofx_reader``     OFX and QFX, with ofxtools
- ``camt_reader``    ISO 20022 camt.053, with pycamt
- ``mt940_reader``   SWIFT MT940, with mt-940
- ``descriptors``    the merchant behind a descriptor; billers, payers, processors
  (``intermediaries.toml``)
- ``recurring``      which charges repeat: weekly, monthly, yearly
- ``catalog``        the catalog service a merchant is, and how to cancel it
- ``finding``        ``find``'s core: files in, subscriptions out
- ``kept``           the subscriptions a person keeps (``find --keep``), no statement text
- ``overview``       the home's rows: kept subscriptions, runs and checks
"""
