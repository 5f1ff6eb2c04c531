"""Word-level RTL rewriting: datapath rules applied on the extracted RTL, each rewrite proven."""
