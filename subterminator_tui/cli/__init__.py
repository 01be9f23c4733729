"""The command line (``subterminator``): one module per subcommand, ``main`` dispatches.

- ``main``           the parser and the dispatch; exit codes as documented
- ``options``        options several subcommands share, defined once
- ``cancel``         ``cancel SERVICE`` (or ``--url``): one run, in the app or headless
- ``check``          ``check SERVICE``: is the plan still cancelled (for cron)
- ``journal_views``  ``runs`` and ``show RUN``
- ``receipt``        ``receipt RUN``: one self-contained HTML proof of a run
- ``record``         ``record RUN``: a verified run becomes the service's playbook
- ``auth``           ``auth save|load``: a service's sign-in in a file the person owns
- ``services``       ``services``: the real services, the practice sites, their files
- ``inspect_page``   ``inspect``: what the rules see on a service's page
- ``doctor``         ``doctor``: what was found on this machine and what to fix
- ``practice``       ``practice``: a practice site for a person's own browser
- ``egress``         ``egress SERVICE``: the egress filter alone, beside a remote browser
- ``completion``     ``completion SHELL``: tab completion for bash, zsh, tcsh
- ``find``, ``find_options``: ``find FILE...``: subscriptions in exported statements, and
  its arguments (kept apart so ``--help`` loads no statement parser)
- ``home``           no command on a terminal: the subscriptions home, then what was chosen
- ``serve``, ``serve_options``, ``serve_console``: ``serve`` over stdio or HTTP, its
  options (kept apart so ``--help`` loads no server), and ``serve --tui``
"""
