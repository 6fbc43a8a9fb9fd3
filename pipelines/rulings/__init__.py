"""The Laws as executable policy over the events: Law 79C correction periods, Law 92B appeals, late and
back-dated facts."""
