"""A 6 nimmt! bot as a program: `nimmt arena "cmd:python3 docs/examples/lowest_bot.py" greedy`.

It reads one request per line on standard input and answers each with one line of JSON: it
plays its lowest card, and when it must take a row it takes the one with the fewest bullheads.
"""

import json
import sys


def bullheads(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "card":
        answer = {"card": min(request["view"]["hand"])}
    elif request["type"] == "row":
        costs = [sum(bullheads(card) for card in row) for row in request["view"]["rows"]]
        answer = {"row": costs.index(min(costs))}
    else:  # "bye": the game is over
        break
    print(json.dumps(answer), flush=True)
