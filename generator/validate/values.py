"""Import path kept for :mod:`generator.validate.rules`, which still import accessors from here.

The definitions live in :mod:`generator.model.values`; everything else imports them from there.
Remove this module once the rules do too.
"""

from generator.model.values import *  # noqa: F403
