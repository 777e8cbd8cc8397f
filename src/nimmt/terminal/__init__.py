"""A whole game of classic 6 nimmt! in the terminal: one person against bots, drawn with Rich.

:class:`TerminalGame` runs the game loop. Its input and output are injected (a Rich
:class:`~rich.console.Console` and an *asker*, a function that receives a :class:`Question` and
returns the typed answer), so a test can script a whole game; :func:`run` adds what the command
line needs around it: the record file, and a clean end on Ctrl-C or end of input.

Rules it carries out (the rules page, ``/rules/en``): everyone chooses a card face down, the person
through a prompt and each bot from its own seat's view only; the cards are revealed together and
told lowest first, card by card; when the person's card is below every row the person chooses the
row to take (rows numbered 1 to 4 with their cost) and the program never chooses for them; after
every round the score sheet is shown, and at the end every player with the lowest total wins.

Hidden information: the person's screen is drawn only from ``game.view(person)`` and the events
that seat may see (:meth:`~nimmt.engine.Game.events_for`); a bot gets only ``game.view(its seat)``.

One module per job: :mod:`.settings` (who plays, seats and names), :mod:`.prompts` (questions,
askers, type-ahead), :mod:`.tables` (cards, rows and the score sheet drawn), :mod:`.narrate` (the
events told in sentences), :mod:`.coach` (the advice of ``--coach``), :mod:`.game` (the loop)
and :mod:`.session` (the command's run and record). The names below are re-exported here for
the command line and the tests.
"""

from nimmt.exits import EXIT_INTERRUPTED
from nimmt.terminal.game import TerminalGame
from nimmt.terminal.narrate import Narrator
from nimmt.terminal.prompts import Asker, Question, QuestionKind, console_asker, discard_typeahead
from nimmt.terminal.session import Ending, record_meta, run, save_record
from nimmt.terminal.settings import (
    BOT_PERSONAS,
    DEFAULT_DELAY,
    PERSON_SEAT,
    PlaySettings,
    bot_kinds_for,
    bot_names,
)
from nimmt.terminal.tables import (
    CARD_STYLES,
    card_text,
    cards_text,
    plural,
    rows_table,
    score_sheet,
)

__all__ = [
    "BOT_PERSONAS",
    "CARD_STYLES",
    "DEFAULT_DELAY",
    "EXIT_INTERRUPTED",
    "PERSON_SEAT",
    "Asker",
    "Ending",
    "Narrator",
    "PlaySettings",
    "Question",
    "QuestionKind",
    "TerminalGame",
    "bot_kinds_for",
    "bot_names",
    "card_text",
    "cards_text",
    "console_asker",
    "discard_typeahead",
    "plural",
    "record_meta",
    "rows_table",
    "run",
    "save_record",
    "score_sheet",
]
