"""Import path kept for :mod:`generator.validate.rules`, which still import the manifest model
from here.

The definitions live in :mod:`generator.model.manifests`; everything else imports them from there.
Remove this module once the rules do too.
"""

from generator.model.manifests import *  # noqa: F403
