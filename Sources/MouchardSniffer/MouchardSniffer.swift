// MouchardSniffer: placeholder until its issue lands.
