"""The application layer: what the services do with the rules core, without Kafka.

`processing` (the processor's per-partition logic), `timers` (turn deadlines), `topics`
(the Kafka topics as data). The rules core (`okey101.tiles` ... `okey101.table`) never
imports from here.
"""
