"""lumir's command-line tools (lumir-opt, lumir-run)."""
