// The `permctl` executable: see Permctl and docs/client.md, "Command line (permctl)".
Permctl.main()
