"""The SQLAlchemy side of :class:`~nimmt.server.storage.people.PeopleStore`: the tables of
profiles, devices, device links, groups, members, seats held by profiles and game results
(created by migration ``0005``), on the engine of :class:`~nimmt.server.storage.SqlStorage`."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from nimmt.server.models import NAME_COLUMN, ActionRow, Base, SeatRow, TableRow
from nimmt.server.storage.base import SeatRecord, as_utc, lobby_seats
from nimmt.server.storage.passkeys_sql import SqlPasskeys
from nimmt.server.storage.people import (
    FORMER_PLAYER,
    Device,
    GameResult,
    Group,
    Member,
    PeopleLimitError,
    Profile,
    ResultSeat,
    SeatLink,
    ordered,
)
from nimmt.server.storage.writes import held_by_profile, writing

_meta = Base.metadata
profiles = Table(
    "profiles",
    _meta,
    Column("id", String(16), primary_key=True),
    Column("name", String(NAME_COLUMN), nullable=False),
    Column("emoji", String(16), nullable=False),
    Column("colour", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
profile_devices = Table(
    "profile_devices",
    _meta,
    Column("id", String(16), primary_key=True),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("secret_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
profile_links = Table(
    "profile_links",
    _meta,
    Column("link_hash", String(64), primary_key=True),
    Column("profile_id", String(16), ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)
groups = Table(
    "groups",
    _meta,
    Column("code", String(8), primary_key=True),
    Column("name", String(NAME_COLUMN), nullable=False),
    Column("owner_id", String(16), ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("invite_hash", String(64), nullable=True, unique=True),
)
group_members = Table(
    "group_members",
    _meta,
    Column(
        "group_code", String(8), ForeignKey("groups.code", ondelete="CASCADE"), primary_key=True
    ),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    ),
    Column("joined_at", DateTime(timezone=True), nullable=False),
)
seat_profiles = Table(
    "seat_profiles",
    _meta,
    Column(
        "table_code", String(6), ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True
    ),
    Column("seat", Integer, primary_key=True),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("token_hash", String(64), nullable=True),
)
group_tables = Table(
    "group_tables",
    _meta,
    Column(
        "table_code", String(6), ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True
    ),
    Column(
        "group_code",
        String(8),
        ForeignKey("groups.code", ondelete="CASCADE"),
        nullable=False,
        index=True,  # a group's open tables (its page) are found from here
    ),
)
game_results = Table(
    "game_results",
    _meta,
    Column("table_code", String(6), primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("real_cards", Boolean, nullable=False),
    Column("group_code", String(8), ForeignKey("groups.code", ondelete="SET NULL"), nullable=True),
    Index("ix_game_results_group", "group_code", "finished_at"),
)
result_seats = Table(
    "result_seats",
    _meta,
    Column("table_code", String(6), primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(NAME_COLUMN), nullable=False),
    Column("kind", String(5), nullable=False),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    Column("total", Integer, nullable=False),
    Column("winner", Boolean, nullable=False),
    Column("rows_taken", Integer, nullable=False),
    Column("round_penalties", JSON, nullable=False),
    Column("decision_loss", Float, nullable=True),
)

_PROFILE = (
    profiles.c.id,
    profiles.c.name,
    profiles.c.emoji,
    profiles.c.colour,
    profiles.c.created_at,
)


def _profile(row: Any) -> Profile:
    return Profile(row.id, row.name, row.emoji, row.colour, as_utc(row.created_at))


def _group(row: Any) -> Group:
    return Group(row.code, row.name, row.owner_id, as_utc(row.created_at), row.invite_hash)


class SqlPeople:
    """:class:`~nimmt.server.storage.people.PeopleStore` on SQLite or PostgreSQL."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.passkeys = SqlPasskeys(engine)

    def _writing(self) -> AbstractContextManager[Connection]:
        return writing(self.engine)

    # ------------------------------------------------------------ profiles, devices

    def add_profile(self, profile: Profile, device: Device, secret_hash: str) -> None:
        with self._writing() as connection:
            connection.execute(
                insert(profiles).values(
                    id=profile.id,
                    name=profile.name,
                    emoji=profile.emoji,
                    colour=profile.colour,
                    created_at=as_utc(profile.created_at),
                )
            )
            self._insert_device(connection, device, secret_hash)

    @staticmethod
    def _insert_device(connection: Connection, device: Device, secret_hash: str) -> None:
        connection.execute(
            insert(profile_devices).values(
                id=device.id,
                profile_id=device.profile_id,
                secret_hash=secret_hash,
                created_at=as_utc(device.created_at),
            )
        )

    def profile(self, profile_id: str) -> Profile | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(*_PROFILE).where(profiles.c.id == profile_id)).first()
        return _profile(row) if row is not None else None

    def signed_in(self, secret_hash: str) -> tuple[Profile, Device] | None:
        query = (
            select(
                *_PROFILE,
                profile_devices.c.id.label("device"),
                profile_devices.c.created_at.label("device_at"),
            )
            .join(profile_devices, profile_devices.c.profile_id == profiles.c.id)
            .where(profile_devices.c.secret_hash == secret_hash)
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        if row is None:
            return None
        return _profile(row), Device(row.device, row.id, as_utc(row.device_at))

    def update_profile(self, profile: Profile) -> None:
        with self._writing() as connection:
            connection.execute(
                update(profiles)
                .where(profiles.c.id == profile.id)
                .values(name=profile.name, emoji=profile.emoji, colour=profile.colour)
            )

    def devices(self, profile_id: str) -> list[Device]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(profile_devices.c.id, profile_devices.c.created_at)
                .where(profile_devices.c.profile_id == profile_id)
                .order_by(profile_devices.c.created_at, profile_devices.c.id)
            ).all()
        return [Device(row.id, profile_id, as_utc(row.created_at)) for row in rows]

    def add_device(self, device: Device, secret_hash: str, limit: int) -> None:
        with self._writing() as connection:
            if held_by_profile(connection, profiles, device.profile_id, profile_devices) >= limit:
                raise PeopleLimitError(f"a profile is signed in on at most {limit} devices")
            self._insert_device(connection, device, secret_hash)

    def remove_device(self, profile_id: str, device_id: str) -> bool:
        with self._writing() as connection:
            gone = connection.execute(
                delete(profile_devices).where(
                    profile_devices.c.id == device_id, profile_devices.c.profile_id == profile_id
                )
            )
        return gone.rowcount == 1

    def add_link(self, profile_id: str, link_hash: str, expires_at: datetime) -> None:
        with self._writing() as connection:
            connection.execute(
                insert(profile_links).values(
                    link_hash=link_hash, profile_id=profile_id, expires_at=as_utc(expires_at)
                )
            )

    def redeem_link(self, link_hash: str, now: datetime) -> str | None:
        with self._writing() as connection:
            row = connection.execute(
                delete(profile_links)
                .where(profile_links.c.link_hash == link_hash)
                .returning(profile_links.c.profile_id, profile_links.c.expires_at)
            ).first()
        if row is None or as_utc(row.expires_at) <= as_utc(now):
            return None
        return str(row.profile_id)

    def delete_profile(self, profile_id: str) -> list[tuple[str, int]]:
        with self._writing() as connection:
            held = connection.execute(
                select(seat_profiles.c.table_code, seat_profiles.c.seat, TableRow.id)
                .join(TableRow, TableRow.code == seat_profiles.c.table_code)
                .where(seat_profiles.c.profile_id == profile_id)
            ).all()
            for _code, seat, table_id in held:
                self._rename_seat(connection, table_id, seat)
            connection.execute(
                update(result_seats)
                .where(result_seats.c.profile_id == profile_id)
                .values(name=FORMER_PLAYER, profile_id=None)
            )
            connection.execute(
                update(groups).where(groups.c.owner_id == profile_id).values(owner_id=None)
            )
            SqlPasskeys.forget_profile(connection, profile_id)
            for table in (seat_profiles, group_members, profile_links, profile_devices):
                connection.execute(delete(table).where(table.c.profile_id == profile_id))
            connection.execute(delete(profiles).where(profiles.c.id == profile_id))
        return [(code, seat) for code, seat, _id in held]

    @staticmethod
    def _rename_seat(connection: Connection, table_id: int, seat: int) -> None:
        connection.execute(
            update(SeatRow)
            .where(SeatRow.table_id == table_id, SeatRow.seat == seat)
            .values(name=FORMER_PLAYER)
        )
        joins = connection.execute(
            select(ActionRow.seq, ActionRow.data).where(
                ActionRow.table_id == table_id, ActionRow.seat == seat, ActionRow.kind == "join"
            )
        ).all()
        for seq, data in joins:
            connection.execute(
                update(ActionRow)
                .where(ActionRow.table_id == table_id, ActionRow.seq == seq)
                .values(data={**(data or {}), "name": FORMER_PLAYER})
            )
        seats = connection.execute(
            select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name, SeatRow.token_hash)
            .where(SeatRow.table_id == table_id)
            .order_by(SeatRow.seat)
        ).all()
        free, humans = lobby_seats(SeatRecord(*row) for row in seats)
        connection.execute(
            update(TableRow).where(TableRow.id == table_id).values(free_seats=free, humans=humans)
        )

    # ---------------------------------------------------------------------- seats

    def link_seat(self, link: SeatLink) -> None:
        with self._writing() as connection:
            connection.execute(
                delete(seat_profiles).where(
                    seat_profiles.c.table_code == link.table, seat_profiles.c.seat == link.seat
                )
            )
            connection.execute(
                insert(seat_profiles).values(
                    table_code=link.table,
                    seat=link.seat,
                    profile_id=link.profile_id,
                    token_hash=link.token_hash,
                )
            )

    def seat_links(self, table: str) -> list[SeatLink]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(seat_profiles)
                .where(seat_profiles.c.table_code == table)
                .order_by(seat_profiles.c.seat)
            ).all()
        return [SeatLink(r.table_code, r.seat, r.profile_id, r.token_hash) for r in rows]

    # --------------------------------------------------------------------- groups

    def add_group(self, group: Group, joined_at: datetime) -> None:
        with self._writing() as connection:
            connection.execute(
                insert(groups).values(
                    code=group.code,
                    name=group.name,
                    owner_id=group.owner_id,
                    created_at=as_utc(group.created_at),
                    invite_hash=group.invite_hash,
                )
            )
            if group.owner_id is not None:
                connection.execute(
                    insert(group_members).values(
                        group_code=group.code,
                        profile_id=group.owner_id,
                        joined_at=as_utc(joined_at),
                    )
                )

    def group(self, code: str) -> Group | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(groups).where(groups.c.code == code)).first()
        return _group(row) if row is not None else None

    def groups_of(self, profile_id: str) -> list[Group]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(groups)
                .join(group_members, group_members.c.group_code == groups.c.code)
                .where(group_members.c.profile_id == profile_id)
                .order_by(groups.c.created_at, groups.c.code)
            ).all()
        return [_group(row) for row in rows]

    def set_invite(self, code: str, invite_hash: str | None) -> None:
        with self._writing() as connection:
            connection.execute(
                update(groups).where(groups.c.code == code).values(invite_hash=invite_hash)
            )

    def group_by_invite(self, invite_hash: str) -> Group | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                select(groups).where(groups.c.invite_hash == invite_hash)
            ).first()
        return _group(row) if row is not None else None

    def add_member(self, code: str, profile_id: str, joined_at: datetime, limit: int) -> bool:
        with self._writing() as connection:
            connection.execute(
                update(groups).where(groups.c.code == code).values(name=groups.c.name)
            )  # locks the group's row: two joins at once cannot both pass the limit
            present = connection.scalar(
                select(func.count())
                .select_from(group_members)
                .where(group_members.c.group_code == code, group_members.c.profile_id == profile_id)
            )
            if present:
                return False
            count = connection.scalar(
                select(func.count())
                .select_from(group_members)
                .where(group_members.c.group_code == code)
            )
            if (count or 0) >= limit:
                raise PeopleLimitError(f"a group has at most {limit} members")
            connection.execute(
                insert(group_members).values(
                    group_code=code, profile_id=profile_id, joined_at=as_utc(joined_at)
                )
            )
            return True

    def members(self, code: str) -> list[Member]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(*_PROFILE, group_members.c.joined_at)
                .join(group_members, group_members.c.profile_id == profiles.c.id)
                .where(group_members.c.group_code == code)
                .order_by(group_members.c.joined_at, profiles.c.id)
            ).all()
        return [Member(_profile(row), as_utc(row.joined_at)) for row in rows]

    def leave_group(self, code: str, profile_id: str) -> bool:
        with self._writing() as connection:
            gone = connection.execute(
                delete(group_members).where(
                    group_members.c.group_code == code, group_members.c.profile_id == profile_id
                )
            )
            # An owner who leaves hands the invite to every member, as one deleted does.
            connection.execute(
                update(groups)
                .where(groups.c.code == code, groups.c.owner_id == profile_id)
                .values(owner_id=None)
            )
        return gone.rowcount == 1

    def add_group_table(self, table: str, group: str) -> None:
        with self._writing() as connection:
            connection.execute(insert(group_tables).values(table_code=table, group_code=group))

    def group_of_table(self, table: str) -> str | None:
        with self.engine.connect() as connection:
            return connection.scalar(
                select(group_tables.c.group_code).where(group_tables.c.table_code == table)
            )

    # -------------------------------------------------------------------- results

    def add_result(self, result: GameResult) -> bool:
        try:
            with self._writing() as connection:
                connection.execute(
                    insert(game_results).values(
                        table_code=result.table,
                        game=result.game,
                        finished_at=as_utc(result.finished_at),
                        real_cards=result.real,
                        group_code=result.group,
                    )
                )
                connection.execute(
                    insert(result_seats),
                    [
                        {
                            "table_code": result.table,
                            "game": result.game,
                            "seat": seat.seat,
                            "name": seat.name,
                            "kind": seat.kind,
                            "profile_id": seat.profile_id,
                            "total": seat.total,
                            "winner": seat.winner,
                            "rows_taken": seat.rows_taken,
                            "round_penalties": list(seat.round_penalties),
                            "decision_loss": seat.decision_loss,
                        }
                        for seat in result.seats
                    ],
                )
        except IntegrityError:
            return False
        return True

    def results(
        self, *, group: str | None = None, profile_id: str | None = None
    ) -> list[GameResult]:
        games = select(game_results)
        if group is not None:
            games = games.where(game_results.c.group_code == group)
        if profile_id is not None:
            played = select(result_seats.c.table_code, result_seats.c.game).where(
                result_seats.c.profile_id == profile_id
            )
            games = games.where(
                game_results.c.table_code.in_(played.with_only_columns(result_seats.c.table_code)),
            )
        with self.engine.connect() as connection:
            heads = connection.execute(games).all()
            keys = {(row.table_code, row.game) for row in heads}
            codes = sorted({code for code, _game in keys})
            seats: dict[tuple[str, int], list[ResultSeat]] = {}
            for start in range(0, len(codes), 500):
                rows = connection.execute(
                    select(result_seats)
                    .where(result_seats.c.table_code.in_(codes[start : start + 500]))
                    .order_by(result_seats.c.seat)
                ).all()
                for row in rows:
                    seats.setdefault((row.table_code, row.game), []).append(
                        ResultSeat(
                            row.seat,
                            row.name,
                            row.kind,
                            row.profile_id,
                            row.total,
                            row.winner,
                            row.rows_taken,
                            tuple(row.round_penalties),
                            row.decision_loss,
                        )
                    )
        found = [
            GameResult(
                row.table_code,
                row.game,
                as_utc(row.finished_at),
                row.real_cards,
                row.group_code,
                tuple(seats.get((row.table_code, row.game), ())),
            )
            for row in heads
        ]
        if profile_id is not None:
            found = [r for r in found if any(s.profile_id == profile_id for s in r.seats)]
        return ordered(found)

    def note_decision_loss(self, table: str, game: int, seat: int, loss: float) -> bool:
        with self._writing() as connection:
            key = (result_seats.c.table_code == table) & (result_seats.c.game == game)
            changed = connection.execute(
                update(result_seats)
                .where(key & (result_seats.c.seat == seat))
                .values(decision_loss=loss)
            )
            return bool(changed.rowcount)
