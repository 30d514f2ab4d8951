"""The matchmaker service: halls, quick play and tournaments (okey101.app.matchmaker)."""
