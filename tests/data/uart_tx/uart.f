// the project's filelist
rtl/uart_tx.v
rtl/baud_tick.v
