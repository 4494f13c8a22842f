"""The one exception the package raises for what profdiff itself could not do."""


class ProfdiffError(RuntimeError):
    """A profdiff operation failed: the binary is missing, the CLI exited non-zero, or the
    server could not be reached or refused the call.

    Attributes (None where they do not apply): ``command`` (the CLI's argument list),
    ``returncode`` (its exit status), ``stderr`` (what it printed), ``server`` (the address
    called) and ``code`` (the gRPC status code's name, "UNAVAILABLE", ...).
    """

    def __init__(self, message, *, command=None, returncode=None, stderr=None, server=None,
                 code=None):
        super().__init__(message)
        self.command = command
        self.returncode = returncode
        self.stderr = stderr
        self.server = server
        self.code = code
