"""A program bot for the tests, good or broken on purpose: ``fake_bot.py MODE MARKER [LOG]``.

MARKER only tags the command line, so a test can look for leftover processes; LOG, if given,
receives every request line as it came. Modes: ``good`` (its lowest card, row 0),
``crash_at_start``, ``exit_mid_game``, ``hang``, ``hang_with_child`` (starts a process of its own,
then hangs), ``garbage``, ``wrong_shape``, ``illegal_card``, ``bad_row``, ``two_lines``,
``ignore_bye`` (good, but stays after ``bye``), ``echo_id`` (good, echoing each request's
``id``), ``late_extra`` (good, echoing ids, but it writes its previous answer again once the
next request has come), ``banner`` (a line of text at start-up, then good), ``garbage_later``
(good once, then text).
"""

import json
import subprocess
import sys
import time


def main() -> None:
    mode, marker = sys.argv[1], sys.argv[2]
    log = open(sys.argv[3], "a", encoding="utf-8") if len(sys.argv) > 3 else None  # noqa: SIM115
    if mode == "crash_at_start":
        sys.exit(3)
    answered = 0
    previous = ""
    if mode == "banner":
        print("fake bot 1.0 ready", flush=True)
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        request = json.loads(line)
        if request["type"] == "bye":
            if mode == "ignore_bye":
                time.sleep(600)
            break
        view = request["view"]
        answer: object = {"card": min(view["hand"])} if request["type"] == "card" else {"row": 0}
        if mode == "exit_mid_game" and answered == 3:
            sys.exit(0)
        if mode in ("hang", "hang_with_child"):
            if mode == "hang_with_child":
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker])
            time.sleep(600)
        if mode == "garbage" or (mode == "garbage_later" and answered == 1):
            answer = "I play the lowest card"
            print(answer, flush=True)
            continue
        if mode == "wrong_shape":
            answer = [min(view["hand"])]
        if mode == "illegal_card" and request["type"] == "card":
            answer = {"card": view["rows"][0][0]}
        if mode == "bad_row" and request["type"] == "row":
            answer = {"row": 4}
        if mode in ("echo_id", "late_extra") and isinstance(answer, dict):
            answer["id"] = request["id"]
        if mode == "late_extra" and previous:
            sys.stdout.write(previous + "\n")
        text = json.dumps(answer)
        previous = text
        sys.stdout.write(text + "\n" + text + "\n" if mode == "two_lines" else text + "\n")
        sys.stdout.flush()
        answered += 1


if __name__ == "__main__":  # the test collector imports this file too
    main()
