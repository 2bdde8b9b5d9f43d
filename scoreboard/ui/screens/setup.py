"""A new match (``setup.kv``): the players' names, the race, who breaks, the rules, the language; or tonight's
unfinished match resumed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty

from scoreboard.contract.read import given
from scoreboard.contract.records import Answer
from scoreboard.i18n.catalog import LANGUAGES
from scoreboard.ui.language import tr
from scoreboard.ui.night import unfinished
from scoreboard.ui.viewmodel import (
    next_profile,
    profile_choices,
    profile_fixes,
    profile_scores_points,
    setup_request,
)
from scoreboard.ui.widgets import DevetkaScreen, stand_in_row

if TYPE_CHECKING:  # the App imports the screens
    from scoreboard.ui.app import Heard


class SetupScreen(DevetkaScreen):
    """A new match: names, race per player, who breaks, the rule options; filled from the match on now."""

    name0 = StringProperty("")
    name1 = StringProperty("")
    breaker = NumericProperty(0)
    alternate = BooleanProperty(False)
    rails_sensed = BooleanProperty(False)
    strike_sensed = BooleanProperty(False)
    """The table's sensed switches as the daemon serves them (``State.sensed``): the venue's, shown, not set."""
    three_foul_rule = BooleanProperty(True)
    profile = StringProperty("")
    """The rule profile picked (``State.profiles``), or "" for the screen's own options."""
    fixed = ListProperty()
    """The options the picked profile (or a locked venue) fixes (``State.profile_fixes``): their switches are
    shown, not the players' to set."""
    points = BooleanProperty(False)
    """The profile plays for APA points: the steppers are the skill levels, not the race."""

    language = StringProperty("")
    """The language chosen for this match on the language button ("": the table's, as the daemon serves it)."""
    known = ListProperty()
    """Names that played at this table, most recent first (the daemon's ``names``): a tap fills a field."""
    target = StringProperty("name0")
    """The name field a tapped known name goes into: the one last touched, else player 1's."""

    resumable = NumericProperty(0)
    """Tonight's latest match left unfinished at this table (not the one on it now), to offer to resume; 0: none."""
    resume_text = StringProperty("")

    def on_kv_post(self, *_args: Any) -> None:
        self._resume_button = self.ids.resume.__self__  # the widget, not kv's weak proxy: it is out of the row at times
        self.bind(resume_text=self._place_resume)
        self._place_resume()

    def _place_resume(self, *_args: Any) -> None:
        """The resume button stands between Back and Start while there is a match to resume, and is out of the row
        (no gap left) while there is none."""
        stand_in_row(self.ids.bottom, self._resume_button, bool(self.resume_text), index=1)

    def on_pre_enter(self, *_args: Any) -> None:
        app = App.get_running_app()
        self.resumable, self.resume_text = 0, ""
        app.send({"cmd": "names"})
        app.send({"cmd": "results"})  # answered to offer_resume: tonight's unfinished match, if any
        self.target = "name0"
        self.language = ""
        defaults = self.defaults()
        self.ids.name0.text, self.ids.name1.text = defaults["players"]
        self.ids.race0.value, self.ids.race1.value = defaults["race"]
        self.breaker = defaults["breaker"]
        rules = defaults["rules"]
        self.alternate = rules.get("break") == "alternate"
        self.three_foul_rule = rules.get("three_foul_rule", True)
        served = app.served
        self.rails_sensed = served is not None and served.sensed.rails_sensed
        self.strike_sensed = served is not None and served.sensed.strike_sensed
        choices = profile_choices(app.served)
        # the profile of the match on now (or the config's), else the screen's own options (unless locked)
        self.profile = rules.get("profile") if rules.get("profile") in choices else choices[-1]
        self.points = profile_scores_points(app.served, self.profile)
        self._show_profile()
        if self.points:
            self._skill_levels()

    def defaults(self) -> dict[str, Any]:
        """What the screen starts from: the match on now, else the config's ``[match]``."""
        from scoreboard.config.table import MatchConfig

        app = App.get_running_app()
        served, defaults = app.served, app.table_config.match
        rules = (served.rules if served is not None else None) or defaults.rules.to_json()
        players = list((served.players if served is not None else None) or defaults.players)
        if tuple(players) == MatchConfig().players:  # the config names none: "Player 1" in the players' language
            players = [tr._("Player 1"), tr._("Player 2")]
        return {"players": players, "race": list((served.race if served is not None else None) or defaults.race),
                "breaker": 0, "rules": dict(rules)}

    def next_profile(self) -> None:
        """The "Rules" button: the next profile the daemon offers; for APA points the steppers become the
        skill levels (the match on now's, else the config's, else 3 each), and back to the race."""
        app = App.get_running_app()
        was = self.points
        self.profile = next_profile(app.served, self.profile)
        self.points = profile_scores_points(app.served, self.profile)
        self._show_profile()
        if self.points and not was:
            self._skill_levels()
        elif was and not self.points:
            self.ids.race0.value, self.ids.race1.value = self.defaults()["race"]

    def _show_profile(self) -> None:
        """The break and three-foul switches show the picked profile's values (and are off where it fixes them)."""
        app = App.get_running_app()
        self.fixed = profile_fixes(app.served, self.profile)
        offered = app.served.profiles.get(self.profile) if app.served is not None else None
        if offered is not None:
            self.alternate = offered.get("break") == "alternate"
            self.three_foul_rule = bool(offered.get("three_foul_rule", True))

    def _skill_levels(self) -> None:
        app = App.get_running_app()
        served = given(app.served.apa_skill) if app.served is not None else None
        skill = served or app.table_config.match.apa_skill or (3, 3)
        self.ids.race0.value, self.ids.race1.value = skill

    def next_language(self) -> None:
        """The language button: the next language for this match; the screen speaks it at once."""
        shown = self.language or tr.language
        self.language = LANGUAGES[(LANGUAGES.index(shown) + 1) % len(LANGUAGES)] if shown in LANGUAGES else "en"
        App.get_running_app().speak(self.language)

    def on_leave(self, *_args: Any) -> None:
        App.get_running_app().speak(None)  # back to the language the daemon serves

    def fill(self, name: str) -> None:
        """A known name into the target field (no more typing there: the keyboard goes); the next one goes into
        the other field."""
        App.get_running_app().type_into(None)
        self.ids[self.target].text = name
        self.target = "name1" if self.target == "name0" else "name0"

    def start(self) -> None:
        rules = {"break": "alternate" if self.alternate else "winner", "three_foul_rule": self.three_foul_rule}
        app = App.get_running_app()
        app.leaving(setup_request(app.served, self.profile, (self.ids.name0.text, self.ids.name1.text),
                                  (int(self.ids.race0.value), int(self.ids.race1.value)), self.breaker, rules,
                                  self.language or None))

    def offer_resume(self, heard: Heard) -> None:
        """The daemon's tonight's results (``DevetkaApp.heard``): offer the latest match left unfinished here, if
        there is one."""
        if not isinstance(heard, Answer):
            return
        row = unfinished(given(heard.state.results), heard.state.match_id, language=tr.language)
        self.resumable, self.resume_text = (row.match, row.text) if row is not None else (0, "")

    def resume(self) -> None:
        if self.resumable:
            App.get_running_app().leaving({"cmd": "resume", "match": self.resumable})
