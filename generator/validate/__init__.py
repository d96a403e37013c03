"""The ``validate`` run: inputs collected once, files cut into chunks, pass 1 (keys and the
partition into independent parts), pass 2 (each part through the checks, serially or in worker
processes), results remembered in a cache, kubeconform beside it on request."""
