// MouchardPosix: placeholder until its issue lands (see README "Architecture").
