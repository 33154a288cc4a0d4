"""The command line: options, config files, argv to typed options, signals, exit statuses."""
