"""Import path kept for :mod:`generator.validate.rules`, which still imports ``kinds`` from here.

The definitions live in :mod:`generator.model.kinds`; everything else imports them from there.
Remove this module once the rules do too.
"""

from generator.model.kinds import *  # noqa: F403
