"""House data of Boars on the Run!: the track and the card list, as text.

The rulebook gives neither the order of the 96 spaces nor the cards (../shared/rulebooks/
FACTS.md), so these are the project's own design, clearly house data. A data set is
never changed in place: a new design gets a new name ("house-2"), so that records naming
"house-1" keep replaying. The formats are the ones a user's own files use
(docs/boars-notation.md): lines starting with # are comments, the first other line is
the header. parse_track() and parse_cards() (shared_rules.boars_files, offered by
shared_rules.boars too) read them; the choices and their measurements are in
docs/rules-decisions.md ("Boars on the Run!").
"""

TRACK_HOUSE_1 = """\
# Boars on the Run! house track 1: 96 spaces, one per line, Start first, Finish last.
# kind is start, food, predator, station or finish; colour is red, blue, yellow or green
# (a station's colour is its transport: red Prickly Cab, yellow Beaver Ferry, blue Metro
# Mole, green Air Squirrel). Stations: 8 cabs, 6 ferries, 5 metros, 4 squirrels, spaced
# so that dearer tickets jump further; 48 foodstuff and 23 predator spaces, colours even.
kind,colour
# spaces 0 to 9
start
food,red
food,blue
predator,yellow
food,yellow
food,green
predator,green
station,red
food,red
food,blue
# spaces 10 to 19
predator,red
food,yellow
station,yellow
food,green
predator,blue
station,blue
food,red
food,blue
station,red
predator,yellow
# spaces 20 to 29
food,yellow
food,green
station,green
predator,green
food,red
food,blue
predator,red
station,yellow
food,yellow
food,green
# spaces 30 to 39
station,red
predator,blue
food,red
food,blue
station,blue
predator,yellow
food,yellow
food,green
predator,green
food,red
# spaces 40 to 49
food,blue
station,red
predator,red
food,yellow
station,yellow
food,green
predator,blue
station,green
food,red
food,blue
# spaces 50 to 59
station,blue
predator,yellow
station,red
food,yellow
food,green
predator,green
food,red
food,blue
station,yellow
predator,red
# spaces 60 to 69
food,yellow
food,green
predator,blue
station,red
food,red
food,blue
predator,yellow
food,yellow
station,blue
food,green
# spaces 70 to 79
station,green
predator,green
station,yellow
food,red
food,blue
station,red
predator,red
food,yellow
food,green
predator,blue
# spaces 80 to 89
food,red
food,blue
predator,yellow
station,blue
food,yellow
food,green
station,red
predator,green
station,yellow
food,red
# spaces 90 to 95
food,blue
station,green
predator,red
food,yellow
food,green
finish
"""

CARDS_HOUSE_1 = """\
# Boars on the Run! house cards 1: one card per line.
# id: a unique name (a-z, 0-9, -); kind; cost in non-black cubes (- for a Boar card);
# then the kind's fields as key=value. Cubes are letters r b y g (red blue yellow green).
id,kind,cost,fields
# Boar cards: two starting diets each (pay -> move); not bought, so the cost is -.
bristle,boar,-,pay=y,move=1,pay2=rr,move2=3
tusker,boar,-,pay=g,move=1,pay2=yy,move2=3
snout,boar,-,pay=r,move=1,pay2=bb,move2=3
trotter,boar,-,pay=b,move=1,pay2=gg,move2=3
# Mono diets: pay cubes of one colour to move (the Boar cards pay 2 cubes for 3 spaces).
mono-rr,mono,2,pay=rr,move=4
mono-bb,mono,2,pay=bb,move=4
mono-yy,mono,2,pay=yy,move=4
mono-gg,mono,2,pay=gg,move=4
mono-rrr,mono,3,pay=rrr,move=7
mono-bbb,mono,3,pay=bbb,move=7
mono-yyy,mono,3,pay=yyy,move=7
mono-ggg,mono,3,pay=ggg,move=7
# Combo diets: pay cubes of several colours to move.
combo-rb,combo,2,pay=rb,move=4
combo-yg,combo,2,pay=yg,move=4
combo-ry,combo,2,pay=ry,move=4
combo-bg,combo,2,pay=bg,move=4
combo-rbg,combo,3,pay=rbg,move=7
combo-ryg,combo,3,pay=ryg,move=7
combo-rbyg,combo,4,pay=rbyg,move=10
# Non-diets: move if you drew no cube of the colour.
non-red,non,2,colour=red,move=3
non-blue,non,2,colour=blue,move=3
non-yellow,non,2,colour=yellow,move=3
non-green,non,2,colour=green,move=3
# Midnight Feasts: gain 3 cubes of the colour if you drew none of it.
feast-red,feast,2,colour=red,gain=rrr
feast-blue,feast,2,colour=blue,gain=bbb
feast-yellow,feast,2,colour=yellow,gain=yyy
feast-green,feast,2,colour=green,gain=ggg
# Portion diets: move if you drew exactly that many cubes.
portion-5,portion,2,drawn=5,move=2
portion-6,portion,2,drawn=6,move=3
portion-7,portion,3,drawn=7,move=4
portion-8,portion,3,drawn=8,move=4
# Gatherers: one more cube of the colour when a space gives you that colour.
gatherer-red,gatherer,2,colour=red,extra=1
gatherer-blue,gatherer,2,colour=blue,extra=1
gatherer-yellow,gatherer,2,colour=yellow,extra=1
gatherer-green,gatherer,2,colour=green,extra=1
# Special diets (the rulebook's three): bought a diet, bought a vendetta, discard a card.
knowledge,knowledge,4,move=4
cold,cold,3,move=6
careless,careless,2,move=3
# Vendettas: triggered by drawing exactly that many black cubes.
overtake-red,overtake,2,black=1,colour=red
overtake-yellow,overtake,2,black=1,colour=yellow
overtake-blue,overtake,2,black=2,colour=blue
overtake-green,overtake,2,black=2,colour=green
pullback-3,pullback,2,black=1,spaces=3
pullback-4,pullback,2,black=2,spaces=4
pullback-5,pullback,3,black=2,spaces=5
switcheroo,switcheroo,2,black=1
finders,finders,2,black=2
sorry,sorry,3,black=1
"""

# Built-in data sets by name: the values of the options "track" and "cards".
TRACKS = {"house-1": TRACK_HOUSE_1}
CARDS = {"house-1": CARDS_HOUSE_1}
