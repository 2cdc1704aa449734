// The `permctl` executable: see Permctl and the README section "Command line (permctl)".
Permctl.main()
