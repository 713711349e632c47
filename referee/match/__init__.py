"""A match of many games: settings, schedule, runners, records, statistics and what is printed."""
