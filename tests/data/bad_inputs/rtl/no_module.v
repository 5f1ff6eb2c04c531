// a file with comments only
/* and no module */
