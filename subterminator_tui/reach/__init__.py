"""Where the browser may go: the bottom of the core, below the browser and the rules.

The egress proxy, the browser's sign-in copy, the guard and the rules all ask the
same questions of an address; they ask them here, so the proxy loads no rules.

- ``urls``               URLs read as a browser reads them, against allowed domains
- ``identity_providers`` Google, Apple, Microsoft, ... and the hosts their sign-ins visit
- ``reachability``       the one answer to "may the browser be at this host now" (sign-ins)
"""
