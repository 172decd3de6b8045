"""`sahab init`: probe a small business's servers over SSH and write the stack that brings them up.

One idea per module: `ssh` (how every connection is made and host keys trusted), `probe` (the script a server
runs and how its answer is read), `facts` (what a server is, parsed from that answer), `propose` (the fleet
those facts call for, and the refusals), `stackfile` (the stack file, byte for byte the same for the same
facts), `prompts` (the person's changes), `bench` (`sahab bench` on every server).
"""
