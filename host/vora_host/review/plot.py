"""A review's chances over the game as a PNG (`vora games review ID --plot FILE.png`), drawn
with matplotlib like the lab's plots (vora_host.lab.report): the Agg backend, 100 dpi,
imported only when a plot is asked for."""

from vora_host.log.records import game_title

__all__ = ["write_plot", "MARK_STYLE"]

# How each mark is drawn on the line of its mover: the worse, the bigger and redder.
MARK_STYLE = {"inaccuracy": ("#e0b000", 40), "mistake": ("#e07000", 60),
              "blunder": ("#d00000", 90)}


def write_plot(review, path, players):
    """Draw each player's chance to win after every move of `review` (its "after", for
    the mover; the others' from the move where they last moved), the marks as dots on
    the mover's line, into the PNG file `path`. OSError when it cannot be written."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    moves = review["moves"]
    fig, ax = plt.subplots(figsize=(10, 4))
    for p in range(players):
        # A player's chance is known where they moved: before and after each of their moves.
        xs, ys = [], []
        for m in moves:
            if m["player"] == p:
                xs += [m["number"] - 1, m["number"]]
                ys += [m["before"], m["after"]]
        if xs:
            ax.plot(xs, ys, linewidth=1.2, label="P%d" % p)
    for name, (colour, size) in MARK_STYLE.items():
        marked = [m for m in moves if m["mark"] == name]
        if marked:
            ax.scatter([m["number"] for m in marked], [m["after"] for m in marked],
                       s=size, color=colour, zorder=3, label=name)
    hinted = [m for m in moves if m["hint"]]
    if hinted:
        ax.scatter([m["number"] for m in hinted], [m["before"] for m in hinted], s=30,
                   marker="^", color="grey", zorder=3, label="hint taken")
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_xlim(0, max(1, len(moves)))
    ax.set_xlabel("move")
    ax.set_ylabel("the mover's chance to win")
    title = "Review of game %d (%s), %d iterations a position%s%s" % (
        review["game_id"], game_title(review["game"]), review["budget"],
        "" if review["complete"] else ", partial",
        "; knows every hand" if review["knows_secrets"] else "")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", ncol=2)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100, format="png")
    finally:
        plt.close(fig)
    return path
