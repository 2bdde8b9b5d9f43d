"""The touchscreen's screens, one room each: a screen's layout in ``NAME.kv`` and, where it does more than show
the state through ``app.view``, its behaviour in ``NAME.py`` beside it (a ``DevetkaScreen`` of ``widgets``).

A screen knows the app only as the kv rules do, through ``App.get_running_app()``: the app imports the screens,
never the other way round. ``scoreboard.ui.app`` lists them (``DevetkaApp.screen_names``) and loads their kv files;
``kv/root.kv``'s screen manager (``scoreboard.ui.screens_on_demand``) makes each the first time it is needed, and
the app shows a screen made late the state of the moment before it is drawn.
"""
