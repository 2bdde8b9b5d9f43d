"""Fixtures of the deploy tests: the shipped broker config running for real, and clients logged in to it."""

from __future__ import annotations

import pytest

from tests.deploy.broker import Peer, ShippedBroker
from tests.deploy.staging import credentials, install


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """One Mosquitto per test module on the files ``install.sh --root`` staged (``.root``, ``.passwords``)."""
    folder = tmp_path_factory.mktemp("mosquitto")
    root = folder / "root"
    run = install(root)
    assert run.returncode == 0, run.stderr
    running = ShippedBroker(root, folder)
    running.root = root
    running.passwords = credentials(root)
    yield running
    running.stop()


@pytest.fixture
def peers(shipped):
    """``peers(user, listener)``: a client logged in as one of the installer's users, on the "venue" listener
    (the LAN's, the default) or the "table" one (127.0.0.1)."""
    made = []

    def login(user: str, listener: str = "venue") -> Peer:
        peer = Peer(user)
        made.append(peer)
        port = shipped.table_port if listener == "table" else shipped.venue_port
        reason = peer.connect(port, user, shipped.passwords[user])
        assert not reason.is_failure, f"{user} could not log in: {reason}"
        return peer

    yield login
    for peer in made:
        peer.close()

