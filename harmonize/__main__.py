from harmonize.cli import main

main()
