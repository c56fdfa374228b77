"""Tossing Tiger, Rolling Dragon on the board's 7x7 keys (docs/tossing-tiger-notation.md,
"On the board").

Moves are chosen word by word (vora_host.games.base.WordKeys): the kinds on the top and
bottom edges (fight, add, next, claim, keep...), then each following word on the inner
keys, their meaning on the PC screen beside the board; the player's corner plays the
preview.

While nothing is selected, the inner 5x5 shows the war: one column per battle (battles 1
to 5, west to east), the attacker's card on row 4 and the defender's on row 2 (a card
shown in its animal's colour, a face-down die dim white, an empty place dark), row 3 the
winner (green: attacker, red: defender, white: both, dark: nobody or not yet). Row 5
shows the viewer's hand: one key per card, in its animal's colour. Only the viewer's own
view is drawn: another player's hand never shows.
"""

from vora_host.games.base import WordKeys, key_of

__all__ = ["TigerBoard"]

# One hue per animal type; face-down cards dim white.
ANIMAL_RGB = {
    "tiger": (255, 120, 0), "dragon": (255, 0, 0), "mantis": (0, 255, 0),
    "crane": (200, 200, 255), "monkey": (150, 80, 0), "panda": (255, 255, 255),
    "turtle": (0, 120, 60), "leopard": (255, 220, 0), "snake": (120, 255, 0),
    "peacock": (0, 80, 255), "bull": (120, 0, 0), "redpanda": (255, 60, 60),
    "chameleon": (0, 255, 180), "horse": (160, 110, 60), "unicorn": (255, 0, 255),
    "frog": (60, 200, 0), "bird": (0, 200, 255), "rooster": (255, 180, 120),
}
FACE_DOWN = (30, 30, 30)
RESULT_RGB = {"a": (0, 200, 0), "d": (200, 0, 0), "both": (120, 120, 120)}


class TigerBoard(WordKeys):

    def frame(self, state, viewer, now):
        v = state.view(viewer)
        info = v["info"]
        out = [(0, 0, 0)] * 49
        for n, b in enumerate(info["battles"][:5]):
            x = n + 1
            for side, y in (("a", 4), ("d", 2)):
                s = b[side]
                if s["face"]:
                    out[key_of(x, y)] = ANIMAL_RGB.get(self.rules.card_type(s["face"]), FACE_DOWN)
                elif s["cards"]:
                    out[key_of(x, y)] = FACE_DOWN
            if b["winner"] in RESULT_RGB:
                out[key_of(x, 3)] = RESULT_RGB[b["winner"]]
        if viewer is not None:
            cards = []
            for card, count in sorted(info["hand"].items()):
                cards += [card] * count
            for x, card in enumerate(cards[:5]):
                out[key_of(x + 1, 5)] = ANIMAL_RGB.get(self.rules.card_type(card), FACE_DOWN)
        return out
