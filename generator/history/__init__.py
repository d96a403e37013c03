"""Files as they were at a git revision, read with git itself (``validate --against REV``,
``topology plan --against REV``): bounded, without a shell, without following links."""
