
basetest