"""Source trees and the environments they run in: ``commits`` (a range read from git), ``worktree`` (a ref checked out
beside the working tree), ``lockenv`` (one environment per lock file) and ``packages`` (what is installed in a server,
and who owns a module).  They run git and uv; they import nothing else of ``measure``."""
