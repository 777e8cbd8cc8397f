"""The shape of every ``nimmt`` command's ``--help``: no type names (Typer would show ``<bool>``
and ``<str>``), arguments by their metavar alone, paragraphs flowed to the terminal's width.
The app and its ``admin`` group use these classes."""

from __future__ import annotations

import inspect
from typing import Any

from typer._click import Context
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class HelpGroup(TyperGroup):
    """A group of commands (the app, ``admin``): its ``--help`` shows no type name."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


class HelpArgument(TyperArgument):
    """An argument shown by its metavar alone: ``FILE``, not ``{FILE}`` and ``<str>``."""

    def display_type_rich(self, ctx: Context) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        return self.display_name_raw if self.required else f"[{self.display_name_raw}]"


class HelpCommand(TyperCommand):
    """A subcommand: its ``--help`` shows no type name either."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            # Typer keeps the line breaks of a docstring's later paragraphs, which then break
            # the help's lines where the source did, not where the terminal does.
            paragraphs = inspect.cleandoc(self.help).split("\n\n")
            self.help = "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)
        for param in self.params:
            if type(param) is TyperArgument:
                # Typer builds the arguments; only their help differs.
                param.__class__ = HelpArgument

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option
