"""Every key the app and the operator console offer, declared once.

Each screen's ``BINDINGS``, the keymap check (``keymap.py``), the help screen
(``?``/F1) and the command palette (``commands.py``) derive from ``ACTIONS``: a key
added here is bound, remappable by its id and listed in the help, or it is none of
them; an action with a ``command`` title is in the palette too, with the same words.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class AppAction:
    """One action: its binding id (``screen.name``), default keys, method and words."""

    id: str
    keys: str
    action: str
    #: The short label (footer, key hints).
    description: str
    #: What it does, in a sentence (tooltip and help screen).
    help: str
    show: bool = True
    priority: bool = False
    #: Its title in the command palette (Ctrl+P); empty: not offered there.
    command: str = ""

    @property
    def owner(self) -> str:
        """The part of the app the action belongs to: ``app``, ``checkpoint``, ``console``..."""
        return self.id.split(".", 1)[0]

    def binding(self) -> Binding:
        """The Textual binding for this action."""
        return Binding(
            self.keys,
            self.action,
            self.description,
            show=self.show,
            priority=self.priority,
            id=self.id,
            tooltip=self.help,
        )


ACTIONS: tuple[AppAction, ...] = (
    # The run's main screen.
    AppAction(
        "app.quit",
        "ctrl+c",
        "request_quit",
        "Quit",
        "Stop the run (asks first), close the browser and exit",
        priority=True,
        command="Stop the run",
    ),
    AppAction("app.quit-q", "q", "request_quit", "Quit", "Stop the run (asks first) and exit"),
    # F1 has priority so it works over every question; ? only where it is not typed text.
    AppAction(
        "app.help",
        "f1",
        "help",
        "Help",
        "The keys of the screen in front",
        priority=True,
        command="Help: keys",
    ),
    AppAction("app.help-key", "question_mark", "help", "Help", "The keys of the screen in front"),
    AppAction(
        "app.search",
        "slash",
        "search",
        "Search page",
        "Find an element in the snapshot",
        command="Search the page",
    ),
    AppAction(
        "app.follow",
        "f",
        "follow_live",
        "Follow live",
        "Show the newest page and turn",
        command="Follow the live page",
    ),
    AppAction(
        "app.toggle-tree",
        "x",
        "toggle_tree",
        "Expand/collapse",
        "Open or close the whole tree",
        command="Expand or collapse the snapshot",
    ),
    AppAction(
        "app.close-search", "escape", "close_search", "Close search", "Close the search box", False
    ),
    # The checkpoint: an irreversible step waits.
    AppAction("checkpoint.approve", "y", "approve", "Approve", "Run this step", command="Approve"),
    AppAction(
        "checkpoint.reject",
        "n",
        "reject",
        "Reject",
        "End the run; this step never runs",
        command="Reject",
    ),
    AppAction("checkpoint.escape", "escape", "reject", "Reject", "Reject", show=False),
    AppAction(
        "checkpoint.guidance",
        "g",
        "guidance",
        "Guidance",
        "Tell the pilot what to do instead (only when a model drives)",
        command="Guidance",
    ),
    # The hand-off: the page needs the person.
    AppAction("handoff.cancel", "escape", "cancel", "Cancel run", "End the run; nothing is typed"),
    # "Stop the run?" (and "Stop the server?").
    AppAction("quit.yes", "s", "stop", "Stop", "Stop and close the browser", command="Stop"),
    AppAction("quit.no", "n,escape", "stay", "Back", "Keep running", command="Back to the run"),
    # The end and error screens.
    AppAction("end.quit", "q", "quit_run", "Quit", "Leave with this exit code"),
    AppAction("end.look", "escape", "look", "Look around", "Back to the run's turns"),
    AppAction("error.quit", "q,escape", "quit_run", "Quit", "Leave with this exit code"),
    # Every question (checkpoint, hand-off, stop, end): ? opens the help over it.
    AppAction(
        "question.help", "question_mark", "app.help", "Help", "The keys of this question", False
    ),
    # The help screen itself.
    AppAction("help.close", "escape,question_mark,f1,q", "close", "Close", "Back"),
    # The subscriptions home (``subterminator`` with no command).
    AppAction(
        "home.cancel",
        "c",
        "cancel_selected",
        "Cancel it",
        "Cancel the selected subscription: the run opens as `subterminator cancel` does",
        command="Cancel the selected subscription",
    ),
    AppAction(
        "home.check",
        "r",
        "check_selected",
        "Re-check",
        "Read the selected service's account page again: still cancelled?",
        command="Re-check the selected service",
    ),
    AppAction(
        "home.receipt",
        "o",
        "receipt_selected",
        "Receipt",
        "Write the selected service's last run receipt (HTML) and say where",
        command="Open the selected run's receipt",
    ),
    AppAction(
        "home.add",
        "a",
        "add_statement",
        "Add statement",
        "Read a bank or card statement and keep the subscriptions it shows",
        command="Add a statement",
    ),
    AppAction("home.quit", "q", "quit_home", "Quit", "Leave", command="Quit"),
    AppAction(
        "home.help",
        "f1",
        "help",
        "Help",
        "The keys of this screen",
        priority=True,
        command="Help: keys",
    ),
    AppAction("home.help-key", "question_mark", "help", "Help", "The keys of this screen"),
    # Adding a statement: the path asked for.
    AppAction("statement.cancel", "escape", "close", "Back", "Back without reading a file"),
    # The operator console (serve --tui).
    AppAction(
        "console.quit",
        "q",
        "quit_console",
        "Quit",
        "Close every session (asks first)",
        command="Stop the server",
    ),
    AppAction(
        "console.quit-ctrl-c",
        "ctrl+c",
        "quit_console",
        "Quit",
        "Close every session (asks first)",
        priority=True,
    ),
    AppAction(
        "console.help",
        "f1",
        "help",
        "Help",
        "The keys of this screen",
        priority=True,
        command="Help: keys",
    ),
    AppAction("console.help-key", "question_mark", "help", "Help", "The keys of this screen"),
    AppAction(
        "console.save-sign-in",
        "s",
        "save_sign_in",
        "Save sign-in",
        "Save the selected session's sign-in (its service's cookies) to a file",
    ),
    AppAction(
        "console.load-sign-in",
        "l",
        "load_sign_in",
        "Load sign-in",
        "Load a saved sign-in into the selected session",
    ),
)

#: Every action by its binding id.
BY_ID: dict[str, AppAction] = {action.id: action for action in ACTIONS}


def bindings(owner: str) -> list[Binding]:
    """The bindings of one part of the app, in the registry's order."""
    return [action.binding() for action in ACTIONS if action.owner == owner]


def palette_actions(owner: str) -> list[AppAction]:
    """The actions of one part of the app that the command palette offers, in order."""
    return [action for action in ACTIONS if action.owner == owner and action.command]


def binding_ids() -> frozenset[str]:
    """Every id a keymap may name."""
    return frozenset(BY_ID)
