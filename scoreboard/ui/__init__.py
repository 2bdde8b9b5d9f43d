"""The touchscreen (``devetka ui``): a Kivy app that shows the daemon's state and sends taps over the local API.

``viewmodel`` turns a state object into what the screen shows and has no Kivy
import; ``client`` carries the local API; ``app`` is the app, ``screens/`` the screens (each one's ``.kv`` beside
its behaviour), ``widgets`` what they draw with, ``kv/`` the shared looks and the window's root.
"""
