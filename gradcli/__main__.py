from gradcli.cli.main import main

main()
