from planner.probe.probe import main

raise SystemExit(main())
