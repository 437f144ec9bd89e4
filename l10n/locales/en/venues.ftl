# The hub's page of its venues' links (hall/src/venues/venues.html), for the broadcast's
# director (docs/venues.md, "What to watch").

venues-docTitle = tengen hub: venues
venues-title = Venues: their links to the hub
venues-overview = Every board
venues-explain = Each venue's hall and broker push its boards to this hub. The hub checks every event by its number and asks the venue for any the link lost. Up: nothing missing. Lagging: the hub is still fetching events the venue holds. Down: nothing has come from the venue for a while; its own console keeps working, and the hub catches up when the link returns.
venues-venue = Venue
venues-link = Link
venues-boards = Boards
venues-hall = Venue hall
venues-filled = Events fetched again
venues-live = Events over the link
venues-loading = Loading…
venues-up = up
venues-lagging = lagging by { $n } events
venues-waiting = fetching events for { $n } boards
venues-down = down
venues-downSince = down since { $time }
venues-unknown = not heard from yet
venues-bridgeLost = the bridge reports its connection lost
venues-hallSilent = silent
venues-hallHeard = heard
venues-updated = Updated { $time }
venues-unreachable = The hub does not answer.
