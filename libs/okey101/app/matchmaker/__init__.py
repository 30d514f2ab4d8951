"""The matchmaker's pure logic: halls, quick play and tournaments (seeds/000 §8, RULES.md §9).

`records` holds what goes on the two topics (the requests gateways write, the matchmaker's
own decisions), `halls` the house data (halls by level, Has Oda, bots, tournaments),
`core` the fold of the decisions and the decisions a request, a finished table or the
time calls for, `tournaments` the brackets. services/matchmaker is its Kafka shell. The
gateway writes requests and reads decisions, so it imports `records` (the topics' schema)
and nothing else of this package.
"""
