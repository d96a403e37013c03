"""kubeconform as a second opinion: its process and schemas, what it is sent (streams of
embedded resources, the user's files) and how its report maps back to capzgen's findings.
Nothing here knows how the validate run is organised."""
