"""The subcommands of ``governor``, one module each (``governor.cli`` puts them together).

Each module holds its subcommand's arguments and its run: ``add_parser(commands)`` adds the
subcommand to the ``Subcommands`` of ``governor.commands.common``, with ``run(args)`` (its exit status,
``replay.exits``) as the function to call. A module imports what its run needs only when it runs, so
that ``governor --help`` and a signal that comes while the command starts cost no engine or database."""
