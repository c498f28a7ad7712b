"""`python -m ontobuild FILE...`: the same as the `ontobuild` command."""

from .cli import main

if __name__ == "__main__":
    main()
