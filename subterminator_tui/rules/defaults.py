"""The built-in checkpoints every service gets: irreversible or money-moving words.

They judge the *effect target* of a call (the element a click, a key, a form
submit or a navigation would activate), so a service's author need not foresee
every tool. A plain "Cancel membership" that only opens the flow is not among
them; its confirmation ("Finish", "Confirm", "Yes, cancel") is. A service turns
them off only with an explicit ``default_checkpoints = false``, which every run
reports loudly.
"""

from __future__ import annotations

from subterminator_tui.rules.built_rules import load_or_build
from subterminator_tui.rules.language_words import LanguageWords, all_language_words
from subterminator_tui.rules.page_rules import CheckpointRule
from subterminator_tui.rules.sentences import control_regex


def _rule(words: LanguageWords) -> CheckpointRule:
    # Validated like a services.toml entry: the patterns compile case-insensitively.
    why = f"Built-in ({words.name}): the step finishes, confirms, deletes, pays or agrees"
    data = {"why": why, "target_regex": [control_regex(words, words.controls.commit)]}
    return CheckpointRule.model_validate(data, strict=False)


#: One rule per language table (``controls.commit``), English first; built once a package
#: (reading every table is most of a command's import of the rules), then loaded.
DEFAULT_CHECKPOINTS: tuple[CheckpointRule, ...] = load_or_build(
    "default-checkpoints", tuple, lambda: tuple(_rule(w) for w in all_language_words())
)


def checkpoints_for(
    service_rules: tuple[CheckpointRule, ...], defaults: bool
) -> tuple[CheckpointRule, ...]:
    """The service's own rules first (their words explain best), then the built-in ones."""
    return (*service_rules, *DEFAULT_CHECKPOINTS) if defaults else service_rules
