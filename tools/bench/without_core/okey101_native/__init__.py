# A stand-in that hides the compiled core: tools.bench's "Python core" runs put this folder
# first on PYTHONPATH, so `import okey101_native` fails as on a checkout where it is not
# built and the Python reference answers everything (tools/bench/cores.py).
raise ImportError("okey101_native is hidden for this run (tools/bench/without_core): "
                  "the Python reference answers")
