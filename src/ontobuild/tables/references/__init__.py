"""References between tables, one concept in two steps: `proposing` finds key columns and the columns that point at
them from the data alone; `confirming` asks the model to confirm each one and links the tables in the index."""
