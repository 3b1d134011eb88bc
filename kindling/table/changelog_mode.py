"""``pyflink.table.changelog_mode`` is not supported by Kindling: ChangelogMode (the modes of from_changelog_stream and to_changelog_stream) is not there yet; to_changelog_stream gives every change."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "ChangelogMode (the modes of from_changelog_stream and to_changelog_stream) is not there yet; to_changelog_stream gives every change")
