"""The loaded services, looked up by id."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from subterminator_tui.errors import ServiceNotFoundError
from subterminator_tui.rules.models import ServiceConfig


class ServiceRegistry:
    """Every service after file overrides and ``extends`` were applied, by id."""

    def __init__(self, services: Iterable[ServiceConfig]) -> None:
        self._services = {service.id: service for service in services}

    def get(self, service_id: str) -> ServiceConfig:
        """The service called ``service_id``; ServiceNotFoundError lists the known ids."""
        try:
            return self._services[service_id]
        except KeyError:
            real = [sid for sid, service in self._services.items() if not service.practice]
            practice = [sid for sid, service in self._services.items() if service.practice]
            raise ServiceNotFoundError(service_id, real, practice) from None

    def ids(self) -> list[str]:
        """Every service id, sorted."""
        return sorted(self._services)

    def all(self) -> list[ServiceConfig]:
        """Every service, sorted by id."""
        return [self._services[service_id] for service_id in self.ids()]

    def source_of(self, service_id: str) -> Path:
        """The file whose definition of ``service_id`` won."""
        return self.get(service_id).source

    def __contains__(self, service_id: object) -> bool:
        return service_id in self._services

    def __len__(self) -> int:
        return len(self._services)
