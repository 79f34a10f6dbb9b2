"""What every planner page shares: htmx partials, role checks, widgets and form fields."""
