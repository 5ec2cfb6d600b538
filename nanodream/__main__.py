from nanodream.cli import main

main()
