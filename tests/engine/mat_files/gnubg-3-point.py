
import json, resource, gnubg
gnubg.command("set analysis chequerplay evaluation plies 2")
gnubg.command("set analysis cubedecision evaluation plies 2")
gnubg.command("import mat tests/engine/mat_files/gnubg-3-point.mat")
before = resource.getrusage(resource.RUSAGE_SELF)
gnubg.command("analyse match")
after = resource.getrusage(resource.RUSAGE_SELF)
gnubg.command("show statistics match")
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
with open("tests/engine/mat_files/gnubg-3-point.json", "w") as out:
    json.dump({"cpu": cpu, "match": gnubg.match(analysis=1, boards=0, statistics=0, verbose=0)}, out)
