"""`python -m ontouse QUESTION ...`: the same as the `ontoask` command."""

from .cli import main

if __name__ == "__main__":
    main()
