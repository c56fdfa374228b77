"""A board and a host joined by an in-memory serial line that can misbehave, for tests.

The board is the firmware's App on the simulated hardware with its BoardLink; the host is
vora_host.link.client.BoardClient with a GameLog. The line carries bytes both ways in small
chunks, with a seeded random choice of faults per frame: a byte flipped, a frame dropped, a
frame sent twice; it can also be cut (nothing passes) and restored.
"""

import random

from shared_rules import vora
from vora_fw import layout
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.link import BoardLink
from vora_host.link.client import BoardClient

from board_player import move_keys


class Line:
    """One direction of the serial line."""

    def __init__(self, rnd, flip=0.0, drop=0.0, dup=0.0):
        self.rnd = rnd
        self.flip, self.drop, self.dup = flip, drop, dup
        self.buffer = bytearray()
        self.cut = False
        self.stats = {"frames": 0, "flipped": 0, "dropped": 0, "duplicated": 0}

    def write(self, data):
        # Writers hand over whole frames (COBS + delimiter): faults are per frame.
        if self.cut:
            return
        self.stats["frames"] += 1
        r = self.rnd.random()
        if r < self.drop:
            self.stats["dropped"] += 1
            return
        data = bytearray(data)
        if r < self.drop + self.flip and len(data) > 1:
            i = self.rnd.randrange(len(data))
            data[i] ^= 1 << self.rnd.randrange(8)
            self.stats["flipped"] += 1
        self.buffer += data
        if self.rnd.random() < self.dup:
            self.buffer += data
            self.stats["duplicated"] += 1

    def take(self, n=64):
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out


class Rig:
    def __init__(self, log=None, seed=1, game_seed=1, players=2, faults=(0.0, 0.0, 0.0),
                 store=None):
        rnd = random.Random(seed)
        self.to_host = Line(rnd, *faults)
        self.to_board = Line(rnd, *faults)
        self.hw = SimHardware()
        self.link = BoardLink(self.to_host.write, board="rig")
        self.app = App(self.hw, default_pinmap(), store=store, link=self.link,
                       seed_fn=lambda: game_seed, id_fn=lambda: 4242 + game_seed)
        self.client = BoardClient(self.to_board.write, log=log, source="virtual board")
        self.now = 0
        self.players = players

    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += 5
            self.app.step(self.now)
            data = self.to_board.take()
            if data:
                self.link.receive(data, self.now)
            data = self.to_host.take()
            if data:
                self.client.feed(data, self.now)
            self.client.poll(self.now)

    def press(self, name):
        k = layout.key_index(name)
        self.hw.press(k)
        self.run(60)
        self.hw.release(k)
        self.run(60)

    def deal(self):
        for seat in "WE"[:self.players - 2] if self.players > 2 else "":
            self.press("c" + seat)
        self.press("c3")

    def play(self, move):
        for name in move_keys(self.app.ui, move):
            self.press(name)

    def cut(self, on=True):
        self.to_host.cut = self.to_board.cut = on


def random_moves(seed):
    rnd = random.Random(seed)

    def choose(state):
        return rnd.choice(state.legal_moves())
    return choose


def shadow_game(rig):
    ui = rig.app.ui
    return vora.new_game(ui.state.players, seed=ui.seed, seats=ui.state.seats)
