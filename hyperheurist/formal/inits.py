"""Shared start values for registers the reset sequence leaves unset, on the AIGER path.

A register without an init value starts free (X in Icarus). Free values drawn independently on the two
sides make a pipeline's operand registers differ in the proof even when the reference is compared
with itself, and they stop ABC from merging the two sides' logic. So a candidate register and the
golden register of the same name and width get one shared free value in the first cycle
(``$initstate ? shared : register`` on both). This stays sound: every candidate start value is still
covered (the golden's start value is chosen equal to it, and where Icarus shows the golden defined,
its value does not depend on the start value), so a proof still holds for every start of the candidate.

The rewrite is a Tcl script (``TIE_TCL``, Yosys' ``tcl`` command, arguments: the flattened RTLIL and
the tied one) that Yosys runs between writing the flattened miter and writing the AIGER
(``miter.check_script``), so the miter and the AIGER come from one Yosys process (one sandboxed
launch); it first prints ``MITER_WRITTEN``, which tells a failure of the AIGER part from one of the
miter. It edits the RTLIL text of the flattened miter: in the top module ``hh_miter``, the wires
without an ``init`` attribute, the flip-flops (``FF_TYPES``) whose Q is such a wire (named through the
mux ``async2sync`` puts after an async-reset register), paired by name across ``hh_gold.`` and
``hh_gate.`` with equal widths; each pair's Q is renamed to a raw wire with init 0 and driven through
``$mux(raw, $anyseq, $initstate)``. With no pair the file is copied unchanged.
"""

TIE_SCRIPT = "hh_tie_inits.tcl"
MITER_WRITTEN = "HH_MITER_WRITTEN"
FF_TYPES = ("$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff", "$aldffe", "$dffsr",
            "$dffsre", "$ff")

TIE_TCL = r"""proc hh_tie_inits {src dst} {
    set fh [open $src r]
    fconfigure $fh -translation binary
    set text [read $fh]
    close $fh
    set lines [split $text "\n"]
    if {[lindex $lines end] eq ""} { set lines [lrange $lines 0 end-1] }
    set start -1
    set n [llength $lines]
    for {set i 0} {$i < $n} {incr i} {
        if {[string trim [lindex $lines $i]] eq "module \\hh_miter"} { set start $i; break }
    }
    for {set stop [expr {$start + 1}]} {$stop < $n} {incr stop} {
        set line [lindex $lines $stop]
        if {[string trim $line] eq "end" && [string index $line 0] ne " "} break
    }
    # wires of the top module without an init attribute: name -> width
    set free [dict create]
    set has_init 0
    set wire_re {^\s*wire((?: (?:width|offset|input|output|inout) \d+| signed| upto)*) (\S+)\s*$}
    for {set i $start} {$i < $stop} {incr i} {
        set line [lindex $lines $i]
        set s [string trim $line]
        if {[string match "attribute \\\\init *" $s]} { set has_init 1; continue }
        if {[regexp $wire_re $line -> opts name]} {
            if {!$has_init} {
                if {![regexp {width (\d+)} $opts -> w]} { set w 1 }
                dict set free $name $w
            }
            set has_init 0
        } elseif {![string match "attribute *" $s]} {
            set has_init 0
        }
    }
    # async2sync puts a mux between an async-reset register and its named wire: name the register by it
    set alias [dict create]
    set cell ""
    set ports [dict create]
    for {set i $start} {$i < $stop} {incr i} {
        set s [string trim [lindex $lines $i]]
        if {[string match "cell *" $s]} {
            set cell [lindex [regexp -all -inline {\S+} $s] 2]
            set ports [dict create]
        } elseif {[string match "connect \\\\*" $s] && $cell ne ""} {
            regexp {^(\S+)\s+(\S+)(?:\s+(.*))?$} $s -> _ port sig
            dict set ports $port $sig
        } elseif {$s eq "end" && [string first async2sync $cell] >= 0 && [dict exists $ports "\\Y"]
                  && [regexp {^\\hh_(gold|gate)\.(\S+)$} [dict get $ports "\\Y"]]} {
            foreach port [list "\\A" "\\B"] {
                if {[dict exists $ports $port] && [string first async2sync [dict get $ports $port]] >= 0} {
                    dict set alias [dict get $ports $port] [dict get $ports "\\Y"]
                }
            }
        }
    }
    # register name -> the line of its flip-flop's Q and the Q wire
    set ffs {@FF_TYPES@}
    set qline [dict create]
    set cell ""
    for {set i $start} {$i < $stop} {incr i} {
        set s [string trim [lindex $lines $i]]
        if {[string match "cell *" $s]} {
            set cell [lindex [regexp -all -inline {\S+} $s] 1]
        } elseif {$s eq "end"} {
            set cell ""
        } elseif {[lsearch -exact $ffs $cell] >= 0 && [string match "connect \\\\Q *" $s]} {
            regexp {^\S+\s+\S+\s+(.*)$} $s -> wire
            set name [expr {[dict exists $alias $wire] ? [dict get $alias $wire] : $wire}]
            if {[regexp {^\\hh_(gold|gate)\.(\S+)$} $name] && [dict exists $free $wire]} {
                dict set qline $name [list $i $wire]
            }
        }
    }
    set pairs {}
    dict for {wire at} $qline {
        regexp {^\\hh_(gold|gate)\.(\S+)$} $wire -> side name
        set other "\\hh_gate.$name"
        if {$side eq "gold" && [dict exists $qline $other]} {
            set w [dict get $free [lindex $at 1]]
            if {[dict get $free [lindex [dict get $qline $other] 1]] == $w} { lappend pairs [list $wire $other $w] }
        }
    }
    set out [open $dst w]
    fconfigure $out -translation binary
    if {[llength $pairs] == 0} {
        puts -nonewline $out $text
        close $out
        return
    }
    set wires [list "  wire \\hh_tie_first"]
    set cells [list "  cell \$initstate \\hh_tie_initstate" "    connect \\Y \\hh_tie_first" "  end"]
    set k 0
    foreach pair $pairs {
        lassign $pair gold gate width
        lappend wires "  wire width $width \\hh_tie_value$k"
        lappend cells "  cell \$anyseq \\hh_tie_any$k" "    parameter \\WIDTH $width" \
            "    connect \\Y \\hh_tie_value$k" "  end"
        foreach tag {g d} name [list $gold $gate] {
            set raw "\\hh_tie_raw$tag$k"
            lassign [dict get $qline $name] at wire
            lset lines $at [string map [list "connect \\Q $wire" "connect \\Q $raw"] [lindex $lines $at]]
            lappend wires "  attribute \\init $width'[string repeat 0 $width]" "  wire width $width $raw"
            lappend cells "  cell \$mux \\hh_tie_mux$tag$k" "    parameter \\WIDTH $width" "    connect \\A $raw" \
                "    connect \\B \\hh_tie_value$k" "    connect \\S \\hh_tie_first" "    connect \\Y $wire" "  end"
        }
        incr k
    }
    set lines [linsert $lines $stop {*}$cells]
    set lines [linsert $lines [expr {$start + 1}] {*}$wires]
    puts -nonewline $out "[join $lines "\n"]\n"
    close $out
}
puts @MITER_WRITTEN@
hh_tie_inits [lindex $argv 0] [lindex $argv 1]
""".replace("@FF_TYPES@", " ".join(FF_TYPES)).replace("@MITER_WRITTEN@", MITER_WRITTEN)
