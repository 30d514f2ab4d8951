"""The matchmaker's pure logic: halls, quick play and tournaments (seeds/000 §8, RULES.md §9).

`records` holds what goes on the two topics (the requests gateways write, the matchmaker's
own decisions), `halls` the house data (halls by level, Has Oda, bots, tournaments),
`core` the fold of the decisions and the decisions a request, a finished table or the
time calls for, `tournaments` the brackets. No service runs it yet: the Kafka shell
(services/matchmaker) is still to come; this is the pure core, tested on its own.
"""
