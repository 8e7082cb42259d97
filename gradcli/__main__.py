from gradcli.cli.entry import main

main()
